// `npm run bench`: prints figures and ratios; asserts nothing about time.
import { fanOut } from './fanOut.js'
import { interruptLatency } from './interrupt.js'
import { memory } from './memory.js'
import { otelCost } from './otel.js'
import { reduxCost } from './redux.js'
import { streaming } from './streaming.js'
import { talk } from './talk.js'
import { toolLoop } from './toolLoop.js'

console.log(`agentlog benchmarks on Node ${process.version}, ${(await import('node:os')).cpus().length} cores`)
await streaming()
await interruptLatency()
await toolLoop()
await fanOut()
await otelCost()
await reduxCost()
await talk()
memory()
