// The tree of sessions around a session of a store, for `inspect` and `replay`: its sub-agent
// sessions, nested (or, with `--tree`, the whole tree from its root), read from the links in the
// logs (lib/hub/tree.ts). A log file has no tree (its sub-agents' logs are not in it).
import fs from 'node:fs'
import { AgentError } from '../core/errors.js'
import type { SessionStore } from '../hub/types.js'
import { sessionTree, type SessionTree } from '../hub/tree.js'
import type { Parsed } from './command.js'
import { isDatabaseUrl, isNatsUrl, openStore } from './source.js'
import { quote } from './render.js'

export const TREE_OPTION = { tree: { type: 'boolean' } } as const

/** The root of `session_id`'s tree: up the parents its sessions record (`metadata.parent`). */
const rootOf = async (store: SessionStore, session_id: string): Promise<string> => {
  const seen = new Set<string>()
  let id = session_id
  for (;;) {
    seen.add(id)
    const parent = (await store.info(id)).metadata.parent as { session_id?: unknown } | undefined
    if (typeof parent?.session_id !== 'string' || seen.has(parent.session_id)) return id
    id = parent.session_id
  }
}

/**
 * The tree of the session named by the source (the whole tree from its root with `--tree`), and
 * `visit`ed with the store still open (to read each session's events); null for a log file.
 */
export const loadTree = async <T = void>(source: string, values: Parsed['values'], visit?: (tree: SessionTree, store: SessionStore) => Promise<T>): Promise<{ tree: SessionTree; visited?: T } | null> => {
  const session = values.session as string | undefined
  const isStore = isDatabaseUrl(source) || isNatsUrl(source) || (fs.existsSync(source) && fs.statSync(source).isDirectory())
  if (!isStore || session === undefined) return null
  const store = await openStore(source, values.schema as string | undefined)
  try {
    const tree = await sessionTree(store, values.tree ? await rootOf(store, session) : session)
    return { tree, visited: visit ? await visit(tree, store) : undefined }
  } catch (error) {
    if (error instanceof AgentError && error.code === 'NOT_FOUND') return null
    throw error
  } finally {
    await store.close()
  }
}

/** Every session of the tree with its depth (0: the tree's top), depth first. */
export const flatten = (tree: SessionTree, depth = 0): { node: SessionTree; depth: number }[] =>
  [{ node: tree, depth }, ...tree.children.flatMap((child) => flatten(child, depth + 1))]

/** One line per session, indented by depth: id, status, the call it runs, its title; `*` marks `current`. */
export const renderTree = (tree: SessionTree, current?: string, indent = '  '): string[] =>
  flatten(tree).map(({ node, depth }) => {
    const call = node.parent ? `  (call ${node.parent.tool_call_id} of ${node.parent.session_id})` : ''
    const title = node.title ? `  ${quote(node.title, 60)}` : ''
    return `${indent}${'  '.repeat(depth)}${node.session_id === current ? '* ' : ''}${node.session_id}  ${node.status}${call}${title}`
  })
