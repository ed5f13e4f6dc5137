// The long crash run (not a test of time; it checks behaviour): N SIGKILLs of a child writing a
// file log with durability 'always', each reopened and checked like the crash spec does (no
// acknowledged event lost, invariants, replay = state, a next reply completes). Prints a summary.
// Run: npx tsx bench/crash.ts [RUNS=300] [SEED]
import { crashMany } from '../spec/log/helpers/crash.js'
import { tempDir } from '../spec/log/helpers/files.js'

export const main = async (runs = Number(process.argv[2] ?? 300), seed = Number(process.argv[3] ?? Date.now())) => {
  const t = performance.now()
  console.log(`crash: ${runs} runs, seed ${seed}`)
  const results = await crashMany(tempDir(), runs, { seed, parallel: 5, maxDelayMs: 800 })
  const mid = results.filter((r) => r.cutMidReply).length
  const events = results.reduce((n, r) => n + r.events, 0)
  console.log(`ok: ${results.length} runs, ${mid} cut inside a running reply, ${events} events checked, ${((performance.now() - t) / 1000).toFixed(1)} s`)
}

await main()
