// `agentlog export STORE --session ID` writes a session as a JSONL log file on stdout (the version
// marker, then one event per line, exactly as stored); `agentlog import STORE FILE --session ID`
// creates the session in a store from such a file (checked line by line, appended in one batch,
// committed before it returns). Export then import moves a session between stores byte for byte.
import { MARKER } from '../stores/file/read.js'
import { loadLog, parse, UsageError, type Command } from './command.js'
import { displayName, openStore, SOURCE_OPTIONS } from './source.js'

export const exportSession: Command = {
  summary: 'write a session of a store as a JSONL log on stdout',
  usage: 'agentlog export (DIR | postgres://…) --session ID [--schema NAME] > FILE.jsonl',
  async run(args, io) {
    const { values, positionals } = parse(args, SOURCE_OPTIONS, ['STORE'])
    const session = values.session as string | undefined
    if (!session) throw new UsageError('name the session with --session ID')
    const store = await openStore(positionals[0], values.schema as string | undefined)
    try {
      const events = await store.read(session)
      io.out(`${MARKER.trimEnd()}${events.map((e) => `\n${JSON.stringify(e)}`).join('')}`)
    } finally {
      await store.close()
    }
    return 0
  },
}

export const importSession: Command = {
  summary: 'create a session in a store from a JSONL log file',
  usage: 'agentlog import (DIR | postgres://…) FILE.jsonl --session ID [--schema NAME]',
  async run(args, io) {
    const { values, positionals } = parse(args, SOURCE_OPTIONS, ['STORE', 'FILE'])
    const [target, file] = positionals
    const session_id = values.session as string | undefined
    if (!session_id) throw new UsageError('name the new session with --session ID')
    const events = loadLog(file, io)
    const store = await openStore(target, values.schema as string | undefined, true)
    try {
      await store.migrate?.()
      await store.create({ session_id, metadata: { imported_from: file } })
      try {
        const log = await store.open(session_id)
        try {
          log.append(events, { expectedSeq: 0 })
          await log.flush?.()
        } finally {
          await log.close()
        }
      } catch (error) {
        // Nothing half-imported is left behind.
        await store.delete(session_id).catch(() => undefined)
        throw error
      }
    } finally {
      await store.close()
    }
    io.err(`imported ${events.length} events into ${displayName(target)} session ${session_id}`)
    return 0
  },
}
