// Issue 28, the hostile-input property for links: random `metadata` holding `parent`,
// `child_session_id`, `session_id` (naming the session itself, another tree, an unknown id, parent
// links, cycles) in reply options, answers, HTTP bodies and imported logs. Properties: every operation
// settles (nothing hangs), nothing escapes as an uncaught error, a refusal is a coded AgentError (or
// a 4xx), a refused client input changes no session, and nothing another tree holds (its secret
// text) reaches the caller through a client's input.
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createHub, createServer, memoryStore, type AgentEvent, type Hub, type SessionStore } from '../../lib/index.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { watchCrashes, within } from '../helpers/hardening.js'
import { importLog } from '../hub/linksContract.js'
import { params } from './helpers/config.js'

const test = suite('properties/hostileLinks')
const SECRET = 'SECRET-of-the-other-tree'

/** A hub with a tree paused at depth 1 (`lead`, its sub-agent `child`), a paused external call (`ext`), and another tree whose log holds the secret. */
const world = async () => {
  const store = memoryStore()
  const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
  const ids = { lead: 'lead', ext: 'ext', other: 'other' }
  for (const id of Object.values(ids)) await hub.create({ session_id: id })
  await hub.session(ids.lead).reply('delegate ask /a')
  await hub.session(ids.ext).reply('ext q')
  await hub.session(ids.other).reply(`delegate ask /${SECRET}`)
  const child = (await store.read(ids.lead)).find((e) => e.type === 'TOOL_RESULT_START')!.metadata.child_session_id as string
  const otherChild = (await store.read(ids.other)).find((e) => e.type === 'TOOL_RESULT_START')!.metadata.child_session_id as string
  return { store, hub, ids: { ...ids, child, otherChild } }
}
type World = Awaited<ReturnType<typeof world>>

/** A session id a hostile input may name. */
const target = (w: World) => fc.constantFrom(w.ids.lead, w.ids.child, w.ids.ext, w.ids.other, w.ids.otherChild, 'unknown-1', '')
const linkValue = (w: World) => fc.oneof(
  target(w),
  fc.record({ session_id: target(w), reply_id: fc.constantFrom('r', 'unknown'), tool_call_id: fc.constantFrom('c1', 'd1') }),
  fc.constant(null), fc.integer(), fc.array(target(w), { maxLength: 3 }),
)
const metadata = (w: World) => fc.dictionary(fc.constantFrom('parent', 'child_session_id', 'session_id', 'trace', 'note'), linkValue(w), { minKeys: 1, maxKeys: 3 })

/** Every session with its last seq. */
const sessions = async (hub: Hub) => (await hub.list({ limit: 100 })).items.map((s) => `${s.session_id}:${s.last_seq}:${s.status}`).sort().join(' ')

/** Runs `work`: it settles, and fails only with a coded AgentError; what it resolves or says is returned as text. */
const settled = async (work: () => Promise<unknown>, what: string): Promise<{ ok: boolean; text: string }> => {
  try {
    const value = await within(work(), 5000, what)
    return { ok: true, text: JSON.stringify(value) ?? '' }
  } catch (error) {
    assert.ok(error instanceof AgentError, `${what} failed with a coded AgentError, not ${String(error)}`)
    return { ok: false, text: (error as Error).message }
  }
}

test('hostile link metadata in reply options, answers and HTTP bodies: refused with a code, nothing changes, nothing of another tree leaks', async () => {
  const w = await world()
  const handler = createServer({ hub: w.hub })
  const http = async (path: string, body: unknown) => {
    const response = await handler(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
    assert.ok(response.status < 500, `POST ${path} is not answered ${response.status}`)
    return { ok: response.status < 300, text: await response.text() }
  }
  const watch = watchCrashes()
  const extCall = (await w.hub.session(w.ids.ext).state()).waiting_for[0].id
  await fc.assert(fc.asyncProperty(metadata(w), fc.constantFrom('reply', 'submit', 'create', 'input', 'http-create', 'http-submit', 'http-reply'), async (meta, where) => {
    const before = await sessions(w.hub)
    const reply_id = (await w.hub.session(w.ids.ext).state()).reply_id
    const event = { type: 'EXTERNAL_EXECUTION_RESULT', id: 'e-hostile', created_at: new Date().toISOString(), metadata: meta, reply_id,
      execution_results: [{ type: 'tool_result', id: extCall, name: 'lookup', output: 'x', state: 'success', metadata: meta, created_at: new Date().toISOString(), finished_at: null }] }
    const outcome = await ({
      reply: () => settled(() => w.hub.session(w.ids.lead).reply('hi', { metadata: meta }), 'reply'),
      submit: () => settled(() => w.hub.session(w.ids.ext).submitResult(extCall, { output: 'x', metadata: meta }), 'submitResult'),
      create: () => settled(() => w.hub.create({ metadata: meta }), 'create'),
      input: () => settled(() => w.hub.session(w.ids.ext).dispatch(event as never), 'dispatch'),
      'http-create': () => http('/sessions', { metadata: meta }),
      'http-submit': () => http(`/sessions/${w.ids.ext}/input`, event),
      'http-reply': () => http(`/sessions/${w.ids.lead}/replies`, { input: 'hi', metadata: meta }),
    } as Record<string, () => Promise<{ ok: boolean; text: string }>>)[where]()
    assert.not.ok(outcome.text.includes(SECRET), `${where} tells nothing of another tree`)
    // Only metadata without links may be accepted; a link is always refused, and a refusal changes nothing.
    const linked = ['parent', 'child_session_id', 'session_id'].some((key) => key in meta)
    if (linked) {
      // (the body of POST /replies takes no metadata: nothing of it is recorded)
      assert.not.ok(outcome.ok && where !== 'http-reply', `${where} with ${JSON.stringify(meta)} is refused`)
      if (!outcome.ok) assert.is(await sessions(w.hub), before, 'a refused input changes no session')
    }
  }), params(40, 'hostile link metadata'))
  assert.equal(await watch.stop(), [], 'nothing escaped as an uncaught error')
  await w.hub.close()
})

test('imported logs with hostile links: waiting, tree, state, interrupt, approve and a follow with descendants settle with a result or a coded error', async () => {
  const w = await world()
  const leadLog = await w.store.read(w.ids.lead)
  const childLog = await w.store.read(w.ids.child)
  await w.hub.close()
  const watch = watchCrashes()
  let n = 0
  await fc.assert(fc.asyncProperty(fc.constantFrom('self', 'lead', 'child', 'other', 'unknown-2'), fc.constantFrom('self', 'lead', 'child', 'unknown-3'), async (childLink, parentLink) => {
    const store: SessionStore = memoryStore()
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    const root = `root-${n}`
    const kid = `kid-${n++}`
    const name = (link: string, self: string) => (link === 'self' ? self : link === 'lead' ? root : link === 'child' ? kid : link)
    const relink = (events: AgentEvent[], self: string): AgentEvent[] => events.map((e) => {
      if (e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string') return { ...e, metadata: { ...e.metadata, child_session_id: name(childLink, self) } }
      if (e.type === 'REPLY_START' && e.metadata.parent) return { ...e, session_id: self, metadata: { ...e.metadata, parent: { ...(e.metadata.parent as object), session_id: name(parentLink, self) } } }
      return e.type === 'REPLY_START' ? { ...e, session_id: self } : e
    })
    await importLog(store, root, relink(leadLog, root))
    await importLog(store, kid, relink(childLog, kid))
    for (const id of [root, kid]) {
      const session = hub.session(id)
      await settled(() => session.waiting(), 'waiting()')
      await settled(() => session.tree(), 'tree()')
      await settled(() => session.state(), 'state()')
      await settled(() => new Promise((resolve, reject) => {
        const events: AgentEvent[] = []
        const sub = session.follow({ descendants: true }).subscribe({ next: (e) => { events.push(e); if (events.length > 200) { sub.unsubscribe(); resolve(events.length) } }, error: reject })
        setTimeout(() => { sub.unsubscribe(); resolve(events.length) }, 50)
      }), 'follow({ descendants })')
      await settled(() => session.approve('d1'), 'approve()')
      await settled(() => session.interrupt(), 'interrupt()')
    }
    await within(hub.close(), 5000, 'hub.close()')
  }), params(20, 'imported logs with hostile links'))
  assert.equal(await watch.stop(), [], 'nothing escaped as an uncaught error')
})

test.run()
