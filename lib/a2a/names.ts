// The names of a2aAgent's pseudo calls (what a proxy sub-agent waits on while the remote task asks),
// apart from the client so the server (main entry) can read a remote question without the SDK.
export const REMOTE_APPROVAL = 'remote_approval'
export const REMOTE_INPUT = 'remote_input'
export const REMOTE_CALLS: ReadonlySet<string> = new Set([REMOTE_APPROVAL, REMOTE_INPUT])
