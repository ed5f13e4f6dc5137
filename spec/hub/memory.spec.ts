import { memoryStore } from '../../lib/index.js'
import { hubContract } from './hubContract.js'

hubContract('memory', async () => memoryStore()).run()
