import { memoryStore } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { tempDir } from '../log/helpers/files.js'
import { hubTreeContract } from './helpers/hubTreeContract.js'

hubTreeContract('memory', async () => memoryStore(), { durable: false }).run()

const dirs = new Map<string, string>()
hubTreeContract('directory', async (key) => {
  if (!dirs.has(key)) dirs.set(key, tempDir())
  return directoryStore(dirs.get(key)!)
}, { durable: true }).run()
