// The process the crash specs kill: a scripted agent (model chunks and tools with small delays)
// that replies forever on a file log with durability 'always', and prints "seq id" for each event
// once it is published, i.e. acknowledged. Usage: node --import tsx crashChild.ts LOG_PATH
import fs from 'node:fs'
import { createAgent, UserMsg } from '../../../lib/index.js'
import { fileLog } from '../../../lib/stores/file/index.js'
import { crashModel, crashTools } from './crashScript.js'

const write = (text: string) => {
  for (let done = 0; done < text.length;) {
    try {
      done += fs.writeSync(1, text.slice(done))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
    }
  }
}

const agent = createAgent({ name: 'crash', model: crashModel(), tools: crashTools(), log: fileLog(process.argv[2], { durability: 'always' }) })
agent.events$.subscribe((event) => write(`${event.metadata.seq as number} ${event.id}\n`))
for (let i = 0; ; i++) await agent.reply(UserMsg({ content: `Task ${i}` }))
