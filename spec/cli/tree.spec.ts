// `agentlog inspect` and `replay` on a session of a store with sub-agents: its sub-agent sessions
// nested under it, and with --tree the whole tree from its root (each log's timeline for replay),
// read from the links in the logs. A log file has no tree: --tree on it is a usage error.
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, createHub, say, scriptedModel } from '../../lib/index.js'
import { directoryStore, fileLog } from '../../lib/node.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { tempDir } from '../log/helpers/files.js'
import { childOf } from '../subagents/helpers/hubTree.js'
import { runMain } from './helpers/main.js'

const test = suite('cli/tree')

/** A directory store holding a tree root -> mid -> leaf (the leaf streams "0 1 "). */
const treeDir = async () => {
  const dir = tempDir()
  const store = directoryStore(dir)
  const hub = createHub({ store: directoryStore(dir), agent: sessionTreeAgent(1), sweepMs: false })
  const { session_id: root } = await hub.create()
  await hub.session(root).reply('delegate delegate stream 2')
  await hub.close()
  const mid = childOf(await store.read(root))
  const leaf = childOf(await store.read(mid))
  await store.close()
  return { dir, root, mid, leaf }
}

/** The indentation and id of each line naming one of `ids`. */
const shape = (lines: string[], ids: string[]) =>
  lines.flatMap((line) => {
    const id = ids.find((i) => line.includes(`${i}  `))
    return id ? [`${line.slice(0, line.search(/\S/))}${line.trim().startsWith('*') ? '* ' : ''}${id}`] : []
  })

test('inspect lists the sub-agent sessions nested; --tree the whole tree from the root, the session marked; --json has the tree', async () => {
  const { dir, root, mid, leaf } = await treeDir()
  const own = await runMain('inspect', dir, '--session', root)
  assert.is(own.code, 0, own.err)
  const at = own.lines.indexOf('Sub-agents: 1')
  assert.ok(at > 0, own.out)
  assert.equal(shape(own.lines.slice(at), [mid, leaf]), [`  ${mid}`, `    ${leaf}`])
  assert.match(own.out, new RegExp(`${mid}  idle  \\(call \\S+ of ${root}\\)`))
  const whole = await runMain('inspect', dir, '--session', leaf, '--tree')
  assert.is(whole.code, 0, whole.err)
  assert.equal(shape(whole.lines.slice(whole.lines.indexOf('Tree:')), [root, mid, leaf]), [`  ${root}`, `    ${mid}`, `      * ${leaf}`])
  const json = JSON.parse((await runMain('inspect', dir, '--session', root, '--json')).out) as { tree: { children: { session_id: string; children: { session_id: string }[] }[] } }
  assert.equal(json.tree.children.map((c) => [c.session_id, c.children.map((g) => g.session_id)]), [[mid, [leaf]]])
})

test("replay names the sub-agents; --tree shows every log's timeline from the root, each indented by its depth", async () => {
  const { dir, root, mid, leaf } = await treeDir()
  const own = await runMain('replay', dir, '--session', root)
  assert.is(own.code, 0, own.err)
  assert.match(own.out, /Sub-agents: 1/)
  const tree = await runMain('replay', dir, '--session', mid, '--tree')
  assert.is(tree.code, 0, tree.err)
  const headings = tree.lines.filter((l) => [root, mid, leaf].some((id) => l.includes(`${id}  `)))
  assert.equal(shape(headings, [root, mid, leaf]), [root, `    * ${mid}`, `        ${leaf}`])
  const leafAt = tree.lines.findIndex((l) => l.includes(`${leaf}  `))
  assert.ok(tree.lines.slice(leafAt + 1).some((l) => l.startsWith('          ') && /0 1/.test(l)), "the leaf's streamed text, under its heading")
})

test('--tree on a log file, and --at with --tree, are usage errors (exit 2)', async () => {
  const { dir, root } = await treeDir()
  const file = path.join(tempDir(), 'one.jsonl')
  const agent = createAgent({ name: 'A', model: scriptedModel([say('hi')]), log: fileLog(file) })
  await agent.reply('hi')
  await agent.close()
  for (const command of ['inspect', 'replay']) {
    const onFile = await runMain(command, file, '--tree')
    assert.is(onFile.code, 2, onFile.err)
    assert.match(onFile.err, /--tree needs a session of a store/)
  }
  const at = await runMain('replay', dir, '--session', root, '--tree', '--at', '3')
  assert.is(at.code, 2)
  assert.match(at.err, /--at/)
})

test.run()
