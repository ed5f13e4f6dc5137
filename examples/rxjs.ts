// Embedding in an RxJS app: `state$` and `events$` are Observables, `dispatch(input)` starts or
// resumes a reply exactly as replyStream would, and its events arrive on `events$`. Here a stream
// of user questions drives the agent, one reply at a time, and a view follows the state.
// Run: npx tsx examples/rxjs.ts
// expect: view: running
// expect: answer: Paris is the capital of France.
// expect: answer: Rome is the capital of Italy.
// expect: 2 replies, 2 answers
import { concatMap, distinctUntilChanged, filter, first, from, map, tap } from 'rxjs'
import { createAgent, scriptedModel, say, textOf } from 'agentlog'

const model = scriptedModel([[...say('Paris is the capital of France.')], [...say('Rome is the capital of Italy.')]])
const agent = createAgent({ name: 'Friday', model })

// A view that follows the status (state$ replays the current state to each new subscriber).
const view = agent.state$.pipe(map((s) => s.status), distinctUntilChanged()).subscribe((status) => console.log(`view: ${status}`))

// Every finished answer, from the event stream.
const answers: string[] = []
const done = agent.events$.pipe(filter((e) => e.type === 'REPLY_END')).subscribe(() => {
  const answer = textOf(agent.state.context.at(-1)!)
  answers.push(answer)
  console.log(`answer: ${answer}`)
})

// Questions as a stream: each is dispatched once the agent is idle again.
const idle$ = agent.state$.pipe(filter((s) => s.status === 'idle'), first())
await new Promise<void>((resolve) => from(['Capital of France?', 'Capital of Italy?']).pipe(
  concatMap((question) => idle$.pipe(tap(() => agent.dispatch(question)), concatMap(() => agent.events$.pipe(filter((e) => e.type === 'REPLY_END'), first())))),
).subscribe({ complete: resolve }))

view.unsubscribe()
done.unsubscribe()
console.log(`${agent.state.context.filter((m) => m.role === 'assistant').length} replies, ${answers.length} answers`)
