// The event protocol checker now lives in the library (reducers/protocol.ts, used by strict replay).
export { protocolProblems as logProblems } from '../../../reducers/protocol.js'
