import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { directoryStore } from '../../lib/node.js'
import type { SessionStore } from '../../lib/index.js'
import { tempDir } from '../log/helpers/files.js'
import { storeContract } from './contract.js'

const dirs = new WeakMap<SessionStore, string>()

storeContract('directory', async () => {
  const dir = tempDir()
  const store = directoryStore(dir, { log: { snapshots: { every: 5 } } })
  dirs.set(store, dir)
  return store
}, {
  snapshotEvery: 5,
  // PATH.snapshot: a header line with the state's checksum, then the state.
  async rewriteSnapshot(store, session_id, edit) {
    const file = path.join(dirs.get(store)!, `${session_id}.jsonl.snapshot`)
    const [header, text] = fs.readFileSync(file, 'utf8').split('\n')
    const state = edit(text)
    const state_sha256 = crypto.createHash('sha256').update(state).digest('hex')
    fs.writeFileSync(file, `${JSON.stringify({ ...JSON.parse(header), state_sha256 })}\n${state}\n`)
  },
}).run()
