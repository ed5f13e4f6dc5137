import { directoryStore } from '../../lib/node.js'
import { tempDir } from '../log/helpers/files.js'
import { storeContract } from './contract.js'

storeContract('directory', async () => directoryStore(tempDir(), { log: { snapshots: { every: 5 } } }), { snapshotEvery: 5 }).run()
