// Embedding agentlog in a Redux Toolkit app (docs/redux.md, "In a Redux app"): the agents slice
// holds each followed session's state, exactly replay(log); commands are actions; a refusal is an
// error action. RTK's default checks stay on.
// Run: npx tsx examples/redux.ts
// expect: alice: running
// expect: alice: paused, waiting for delete_file
// expect: refused: REPLY_PAUSED
// expect: alice: idle, 2 messages
// expect: same as replay(log): true
import { isDeepStrictEqual } from 'node:util'
import { configureStore, createSlice } from '@reduxjs/toolkit'
import { createHub, defineTool, memoryStore, replay, say, callTool, scriptedModel } from 'agentlog'
import { agentActions, agentsMiddleware, agentsReducer, selectSession } from 'agentlog/redux'
import { z } from 'zod'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }), permission: 'ask',
  execute: async ({ path }) => `deleted ${path}`,
})
const store = memoryStore()
const hub = createHub({
  store,
  agent: () => ({
    name: 'Friday',
    model: scriptedModel([[...say('Deleting it.'), ...callTool('call-1', 'delete_file', { path: '/tmp/a.txt' })], say('Done, it is gone.', 4)]),
    tools: [deleteFile],
  }),
})
await hub.create({ session_id: 'alice' })

// The app's own state sits beside the agents slice; refusals are error actions a reducer can keep.
const todos = createSlice({ name: 'todos', initialState: [] as string[], reducers: { added: (state, action: { payload: string }) => [...state, action.payload] } })
const refusals = (state: string[] = [], action: { type: string; payload?: unknown }) =>
  action.type === 'agentlog/refused' ? [...state, (action.payload as { code: string }).code] : state

const app = configureStore({
  reducer: { todos: todos.reducer, agents: agentsReducer, refusals },
  middleware: (getDefault) => getDefault().concat(agentsMiddleware({ hub })), // or { agents: { alice: agent } }, or { remote: { url, token } }
})

// Print each change of status, and every refusal, from the store.
let last = ''
app.subscribe(() => {
  const alice = selectSession(app.getState().agents, 'alice')
  if (!alice || alice.status === last) return
  last = alice.status
  const waiting = alice.waiting_for.map((call) => call.name).join(', ')
  console.log(`alice: ${alice.status}${waiting ? `, waiting for ${waiting}` : ''}${alice.status === 'idle' && alice.seq > 0 ? `, ${alice.context.length} messages` : ''}`)
})
app.dispatch(agentActions.follow({ session_id: 'alice' }))
app.dispatch(todos.actions.added('Plan my day'))
app.dispatch(agentActions.send({ session_id: 'alice', input: 'Delete /tmp/a.txt' }))
await until(() => selectSession(app.getState().agents, 'alice')?.status === 'paused')

// A send while the reply waits for an answer is refused: an error action, never a throw.
app.dispatch(agentActions.send({ session_id: 'alice', input: 'And another thing' }))
await until(() => app.getState().refusals.length > 0)
console.log(`refused: ${app.getState().refusals[0]}`)

const [call] = selectSession(app.getState().agents, 'alice')!.waiting_for
app.dispatch(agentActions.approve({ session_id: 'alice', call: call.id }))
await until(() => selectSession(app.getState().agents, 'alice')?.status === 'idle')

// The slice is the agent's state: the same as folding the session's log.
const alice = selectSession(app.getState().agents, 'alice')!
console.log(`same as replay(log): ${isDeepStrictEqual(alice, replay(await store.read('alice')))}`)
await hub.close()

/** Resolves once `check()` holds (checked on every change of the store). */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve()
    const unsubscribe = app.subscribe(() => {
      if (check()) {
        unsubscribe()
        resolve()
      }
    })
  })
}
