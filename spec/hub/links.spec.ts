// The links contract (linksContract.ts) on the memory and directory stores.
import { memoryStore } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { tempDir } from '../log/helpers/files.js'
import { linksContract } from './linksContract.js'

linksContract('memory', async () => memoryStore()).run()
linksContract('directory', async () => directoryStore(tempDir())).run()
