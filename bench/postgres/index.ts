// npm run bench:postgres: the PostgreSQL store's figures, each against a baseline measured in the
// same run (see each file). Prints figures; asserts nothing about time. Needs the server at
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); its schemas are dropped at the end.
// Sections: throughput, stop, follow, open, memory (all by default; name some to run only those).
import { hubMemory } from './memory.js'
import { followLatency, stopLatency } from './latency.js'
import { openLarge } from './open.js'
import { dropSchemas } from './shared.js'
import { throughput } from './throughput.js'

const sections: Record<string, () => Promise<string[]>> = {
  throughput: () => throughput(),
  stop: () => stopLatency(),
  follow: () => followLatency(),
  open: () => openLarge(),
  memory: () => hubMemory(Number(process.env.SESSIONS ?? 10_000)),
}

const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(sections)
try {
  for (const name of chosen) {
    const run = sections[name]
    if (!run) throw new Error(`unknown section ${name}; choose from ${Object.keys(sections).join(', ')}`)
    for (const line of await run()) process.stdout.write(`${line}\n`)
    process.stdout.write('\n')
  }
} finally {
  await dropSchemas()
}
process.exit(0)
