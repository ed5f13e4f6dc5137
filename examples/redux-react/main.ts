// The page: sessions on the left (followed from the server), the conversation of the open one with
// its reply streaming, the calls waiting for approval with Approve / Deny, Send and Stop, and a
// DevTools-like log of the actions (click one: the session's state after it). Everything the page
// shows comes from useSelector, and everything it does is a dispatch.
import { createElement as h, StrictMode, useState, useSyncExternalStore, type ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { Provider, useDispatch, useSelector } from 'react-redux'
import { agentActions, selectReplyMsg, selectSession, selectSessionIds, selectStatus, selectWaitingFor } from 'agentlog/redux'
import { textOf, type Msg } from 'agentlog'
import { makeStore, recorder, type RootState } from './store.js'

const store = makeStore(location.origin)
;(globalThis as { agentlogStore?: unknown }).agentlogStore = store

const current = () => new URLSearchParams(location.hash.slice(1)).get('s')

const follow = (session_id: string) => store.dispatch(agentActions.follow({ session_id }))

// The server's sessions, each followed; the one named in the URL (#s=ID) is open.
void fetch('/sessions').then((r) => r.json()).then((page: { items: { session_id: string }[] }) => {
  for (const { session_id } of page.items) follow(session_id)
})

const newSession = async () => {
  const { session_id } = (await (await fetch('/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { session_id: string }
  follow(session_id)
  location.hash = `s=${session_id}`
}

const useOpen = () => useSyncExternalStore((notify) => {
  addEventListener('hashchange', notify)
  return () => removeEventListener('hashchange', notify)
}, current)

const Message = ({ msg }: { msg: Msg }) => h('article', { className: `msg msg-${msg.role}` },
  h('b', null, msg.role === 'user' ? 'You' : msg.name),
  h('p', null, textOf(msg)),
  ...msg.content.flatMap((block) => (block.type === 'tool_call' ? [h('code', { key: block.id }, `${block.name}(${block.input}) ${block.state}`)] : [])),
  msg.finished_reason === 'interrupted' ? h('em', null, 'stopped') : null)

const Sessions = () => {
  const ids = useSelector((s: RootState) => selectSessionIds(s.agents))
  const open = useOpen()
  return h('nav', null,
    h('button', { onClick: () => void newSession() }, 'New session'),
    ...ids.map((id) => h('a', { key: id, href: `#s=${id}`, className: id === open ? 'open' : '' }, id)))
}

const Conversation = ({ id }: { id: string }) => {
  const dispatch = useDispatch()
  const session = useSelector((s: RootState) => selectSession(s.agents, id))
  const reply = useSelector((s: RootState) => selectReplyMsg(s.agents, id))
  const status = useSelector((s: RootState) => selectStatus(s.agents, id))
  const waiting = useSelector((s: RootState) => selectWaitingFor(s.agents, id))
  const [text, setText] = useState('')
  if (!session) return h('main', null, h('p', null, 'Following…'))
  const send = () => {
    dispatch(agentActions.send({ session_id: id, input: text }))
    setText('')
  }
  return h('main', null,
    h('header', null, h('span', { className: 'status' }, status)),
    h('section', { className: 'messages' }, ...session.context.map((msg) => h(Message, { key: msg.id, msg })), reply ? h(Message, { key: 'reply', msg: reply }) : null),
    ...waiting.map((call) => h('div', { key: call.id, className: 'waiting' },
      h('span', null, `${call.name} ${call.input} asks for approval`),
      h('button', { onClick: () => dispatch(agentActions.approve({ session_id: id, call: call.id })) }, 'Approve'),
      h('button', { onClick: () => dispatch(agentActions.deny({ session_id: id, call: call.id, reason: 'denied on the page' })) }, 'Deny'))),
    h('form', { onSubmit: (e: { preventDefault(): void }) => (e.preventDefault(), send()) },
      h('input', { value: text, placeholder: 'Message', 'aria-label': 'Message', onChange: (e: { target: { value: string } }) => setText(e.target.value) }),
      h('button', { type: 'submit', disabled: status !== 'idle' || !text }, 'Send'),
      h('button', { type: 'button', disabled: status === 'idle', onClick: () => dispatch(agentActions.stop({ session_id: id })) }, 'Stop')))
}

/** The actions as the Redux DevTools list them; a click shows the open session's state after that action. */
const DevLog = ({ id }: { id: string | null }) => {
  const entries = useSyncExternalStore(recorder.subscribe, recorder.get)
  const [picked, pick] = useState<number | null>(null)
  const shown = entries.find((e) => e.n === picked) ?? entries.at(-1)
  const state = shown && id ? shown.agents.sessions[id] : undefined
  return h('aside', { className: 'devlog' },
    h('h2', null, 'Actions'),
    h('ol', null, ...entries.slice(-30).map((e) => h('li', { key: e.n, className: e === shown ? 'picked' : '', onClick: () => pick(e.n) },
      h('span', null, e.action.type), h('small', null, stateLine(e))))),
    h('h2', null, 'State after it'),
    h('pre', null, state ? JSON.stringify({ seq: state.seq, status: state.status, reply: state.reply_msg && textOf(state.reply_msg), waiting_for: state.waiting_for.map((c) => c.id), messages: state.context.length }, null, 2) : '—'))
}

const stateLine = (e: { action: { payload?: unknown } }): string => {
  const event = (e.action.payload as { event?: { metadata: { seq?: number } } } | undefined)?.event
  return event ? `seq ${event.metadata.seq}` : ''
}

const App = (): ReactNode => {
  const open = useOpen()
  return h('div', { className: 'app' }, h(Sessions), open ? h(Conversation, { id: open }) : h('main', null, h('p', null, 'Pick or start a session.')), h(DevLog, { id: open }))
}

createRoot(document.getElementById('app')!).render(h(StrictMode, null, h(Provider, { store, children: h(App) })))
