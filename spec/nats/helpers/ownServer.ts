// A single nats-server of the spec's own (JetStream, a free loopback port, a temporary store
// directory) that can be killed and started again on the same port and directory: a server
// restart or an outage, without touching the shared server.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { tempDir } from '../../log/helpers/files.js'
import { NATS_SERVER } from './cluster.js'

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = net.createServer()
  server.on('error', reject)
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resolve(port))
  })
})

export interface OwnServer {
  url: string
  /** SIGKILLs the server (an outage starts). */
  kill(): Promise<void>
  /** Starts it again on the same port and directory; resolves once JetStream answers. */
  start(): Promise<void>
  stop(): Promise<void>
}

export const startOwnServer = async (): Promise<OwnServer> => {
  const port = await freePort()
  const dir = tempDir()
  const url = `nats://127.0.0.1:${port}`
  let child: ChildProcess | null = null
  let exited: Promise<unknown> = Promise.resolve()
  const server: OwnServer = {
    url,
    async kill() {
      if (!child) return
      child.kill('SIGKILL')
      await exited
      child = null
    },
    async start() {
      const c = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' })
      child = c
      exited = new Promise((resolve) => c.on('exit', resolve))
      const until = Date.now() + 20_000
      for (;;) {
        try {
          const nc = await connect({ servers: url, timeout: 1000, reconnect: false })
          try {
            await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo()
            return
          } finally {
            await nc.close()
          }
        } catch (error) {
          if (Date.now() > until) throw new Error(`nats-server did not start: ${(error as Error).message}`)
          await new Promise((r) => setTimeout(r, 100))
        }
      }
    },
    async stop() {
      await server.kill()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
  await server.start()
  return server
}
