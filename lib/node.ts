// agentlog's Node-only API (`agentlog/node`): the durable JSONL file log and reading a log file.
export { fileLog, type FileLog, type FileLogOptions, type Durability, type Recovery } from './fileLog.js'
export { readLogFile, type LogFile } from './fileLog/read.js'
export { directoryStore, type DirectoryStoreOptions } from './stores/directory.js'
export { listen, type ListenOptions, type Listening } from './server/listen.js'
