// Structured output (`npx tsx examples/structuredOutput.ts`): the reply ends with a value of a zod
// schema, through the built-in `GenerateStructuredOutput` tool (STRUCTURED_OUTPUT_TOOL). The
// scripted model first sends a value that fails validation, sees the error result, and corrects itself.
import { z } from 'zod'
import { callTool, createAgent, scriptedModel, STRUCTURED_OUTPUT_TOOL, UserMsg } from 'agentlog'

const Weather = z.object({ city: z.string(), celsius: z.number() })

const model = scriptedModel([
  callTool('call-1', STRUCTURED_OUTPUT_TOOL, { city: 'Oslo', celsius: 'cold' }),
  callTool('call-2', STRUCTURED_OUTPUT_TOOL, { city: 'Oslo', celsius: -3 }),
])
const agent = createAgent({ name: 'Friday', model })

const msg = await agent.reply(UserMsg({ content: 'How cold is it in Oslo?' }), { output: Weather })
console.log(msg.finished_reason, msg.structured_output) // completed { city: 'Oslo', celsius: -3 }
if (msg.structured_output) console.log(`${msg.structured_output.city}: ${msg.structured_output.celsius} °C`)
