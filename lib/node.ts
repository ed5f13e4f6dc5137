// agentlog's Node-only API (`agentlog/node`): the durable JSONL file log, reading a log file, listen() for the server, and the web page's static files.
export { fileLog, type FileLog, type FileLogOptions, type Durability, type Recovery } from './fileLog.js'
export { readLogFile, type LogFile } from './fileLog/read.js'
export { directoryStore, type DirectoryStoreOptions } from './stores/directory.js'
export { listen, type ListenOptions, type Listening } from './server/listen.js'
export { webPage, withWebPage } from './webPage.js'
