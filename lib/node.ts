// agentlog's Node-only API (`agentlog/node`): the durable JSONL file log, reading a log file, MCP
// tools from a server spawned over stdio, the directory session store, listen() for the server,
// and the web page's static files.
export { fileLog, type FileLog, type FileLogOptions, type Durability, type Recovery } from './stores/file/index.js'
export { readLogFile, type LogFile } from './stores/file/read.js'
export { mcpTools, parseCommandLine, type McpStdioServer } from './mcp/node.js'
export type { McpConnection, McpToolsOptions } from './mcp/index.js'
export { directoryStore, type DirectoryStoreOptions } from './stores/directory.js'
export { listen, type ListenOptions, type Listening } from './server/listen.js'
export { webPage, withWebPage, type WebPageOptions } from './server/webPage.js'
