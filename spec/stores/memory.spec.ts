import { memoryStore } from '../../lib/index.js'
import { storeContract } from './contract.js'

storeContract('memory', async () => memoryStore()).run()
