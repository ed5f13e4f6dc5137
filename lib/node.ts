// agentlog's Node-only API (`agentlog/node`): the durable JSONL file log, reading a log file, and
// MCP tools from a server spawned over stdio (or any connection `agentlog/mcp` takes).
export { fileLog, type FileLog, type FileLogOptions, type Durability, type Recovery } from './fileLog.js'
export { readLogFile, type LogFile } from './fileLog/read.js'
export { mcpTools, parseCommandLine, type McpStdioServer } from './mcp/node.js'
export type { McpConnection, McpToolsOptions } from './mcp/index.js'
export { directoryStore, type DirectoryStoreOptions } from './stores/directory.js'
