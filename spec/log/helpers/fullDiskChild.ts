// Child for the full-disk spec, run under `ulimit -f` so the file log's append fails with a real
// EFBIG in the middle of a streamed reply. Prints one JSON line: how the reply ended and the
// state's status and position; it prints only if the process survived the failure.
import { createAgent, say, scriptedModel, UserMsg } from '../../../lib/index.js'
import { fileLog } from '../../../lib/stores/file/index.js'

const main = async () => {
  const [path] = process.argv.slice(2)
  const log = fileLog(path, { durability: 'none' })
  const agent = createAgent({ name: 'A', model: scriptedModel([say('x'.repeat(200_000), 4000)]), log })
  const outcome = await agent.reply(UserMsg({ content: 'write a lot' })).then(
    () => ({ message: 'completed' }),
    (error: unknown) => ({ code: (error as { code?: string }).code, message: (error as Error).message }),
  )
  const { status, seq } = agent.state
  await agent.close().catch(() => undefined)
  console.log(JSON.stringify({ ...outcome, status, seq }))
}

void main()
