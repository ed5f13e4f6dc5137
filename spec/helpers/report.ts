// npm test's closing report, preloaded by uvu (`-r`): the time each spec file's suites took, slowest
// first, and how many specs were skipped because PostgreSQL or Chromium is missing here. It lines up
// with uvu's own summary (Total/Passed/Skipped, which .ci/run counts) and never repeats those words.
import { performance } from 'node:perf_hooks'
import { skipped } from './skipped.js'

type Run = () => Promise<unknown>
type Group = [string | null, ...Run[]]

const times = new Map<string, number>()

/** uvu's run queue (one group per file: its name, then each suite's run), with every suite's run timed for its file. */
const queue: Group[] = []
queue.push = (...groups: Group[]) => {
  for (const group of groups) {
    const file = group[0] ?? '(inline)'
    group.push = (...runs: Run[]) => Array.prototype.push.apply(group, runs.map((run) => async () => {
      const start = performance.now()
      try {
        return await run()
      } finally {
        times.set(file, (times.get(file) ?? 0) + performance.now() - start)
      }
    }))
  }
  return Array.prototype.push.apply(queue, groups)
}
;(globalThis as { UVU_QUEUE?: Group[] }).UVU_QUEUE = queue

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`

export const report = (): string => {
  const lines = ['  Time per spec file (slowest first):']
  for (const [file, ms] of [...times].sort((a, b) => b[1] - a[1])) lines.push(`  ${seconds(ms)}  ${file}`)
  const missing = skipped()
  const tests = missing.reduce((n, s) => n + s.tests, 0)
  lines.push(missing.length
    ? `  Skipped for a missing service: ${tests} specs in ${missing.length} files (${[...new Set(missing.map((s) => s.service))].join(', ')}): ${missing.map((s) => s.file).join(', ')}`
    : '  Skipped for a missing service: 0 specs')
  return `${lines.join('\n')}\n`
}

process.on('exit', () => {
  if (times.size) process.stdout.write(report())
})

// A spec that leaves a socket, a timer or a child behind keeps the run from ending after uvu's
// summary. Once the summary is out, the run waits LEFT_OPEN_MS for such handles to close, then names
// what is still open (on stderr, so a leak is seen and fixed) and ends with uvu's exit code.
const LEFT_OPEN_MS = 15_000
const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, ...rest: unknown[]) => boolean
process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
  if (typeof chunk === 'string' && chunk.includes('Duration:')) {
    setTimeout(() => {
      const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap')
      process.stderr.write(`\n  Left open after the specs (ended after ${LEFT_OPEN_MS / 1000} s): ${open.join(', ') || 'nothing'}\n`)
      process.exit(process.exitCode ?? 0)
    }, LEFT_OPEN_MS).unref()
  }
  return write(chunk, ...rest)
}) as typeof process.stdout.write
