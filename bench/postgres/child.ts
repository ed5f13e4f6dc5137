// A benchmark child process with its own store and hub on the benchmark's schema. Commands on
// stdin: {op:'stream', session} starts an endless reply (a delta every 2 ms) and prints "started"
// at its first event; {op:'follow', session, fromSeq} prints "SEQ TIME" per event delivered, TIME
// being performance.timeOrigin + performance.now() (the wall clock, sub-millisecond). With `tree`
// as its third argument, its sessions delegate to a tree of sub-agents (models.ts, treeRoot).
import readline from 'node:readline'
import { createHub } from '../../lib/index.js'
import { postgresStore } from '../../lib/postgres.js'
import { endlessModel, treeRoot } from './models.js'

const [url, schema, kind] = process.argv.slice(2)
const store = postgresStore({ connectionString: url, schema })
const hub = createHub({ store, agent: kind === 'tree' ? treeRoot : () => ({ name: 'Bench', model: endlessModel(2) }) })
const now = () => performance.timeOrigin + performance.now()

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const { op, session, fromSeq } = JSON.parse(line) as { op: string; session: string; fromSeq?: number }
  if (op === 'stream') {
    void (async () => {
      let first = true
      for await (const _ of hub.session(session).replyStream('go')) {
        if (first) process.stdout.write('started\n')
        first = false
      }
      process.stdout.write('ended\n')
    })().catch((error: Error) => process.stdout.write(`error ${error.message}\n`))
  } else if (op === 'follow') {
    store.follow(session, { fromSeq }).subscribe((event) => process.stdout.write(`${event.metadata.seq} ${now()}\n`))
  }
})
process.stdout.write('ready\n')
