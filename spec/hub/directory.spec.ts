import { directoryStore } from '../../lib/node.js'
import { tempDir } from '../log/helpers/files.js'
import { hubContract } from './hubContract.js'

let dir = ''
hubContract('directory', async () => directoryStore((dir = tempDir())), {
  // A session the hub closed holds no lease: a second store on the same directory can open it.
  async reopen(_store, session_id) {
    const other = directoryStore(dir)
    const log = await other.open(session_id)
    await log.close()
    await other.close()
  },
}).run()
