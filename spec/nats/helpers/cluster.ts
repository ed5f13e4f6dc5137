// A three-node JetStream cluster of the spec's own, on loopback: free ports, temporary store
// directories, the nats-server binary (NATS_SERVER, default /usr/sbin/nats-server). Resolves once
// JetStream has a meta leader; a node can be SIGKILLed by name; `stop` ends every node.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { tempDir } from '../../log/helpers/files.js'

export const NATS_SERVER = process.env.NATS_SERVER ?? '/usr/sbin/nats-server'

export const natsServerInstalled = (): boolean => fs.existsSync(NATS_SERVER)

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = net.createServer()
  server.on('error', reject)
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resolve(port))
  })
})

export interface Node { name: string; url: string; process: ChildProcess; exited: Promise<unknown> }

export interface Cluster {
  urls: string[]
  nodes: Node[]
  kill(name: string): Promise<void>
  stop(): Promise<void>
}

export const startCluster = async (size = 3): Promise<Cluster> => {
  const ports = await Promise.all(Array.from({ length: size * 2 }, freePort))
  const dir = tempDir()
  const routes = ports.slice(size).map((p) => `nats://127.0.0.1:${p}`).join(',')
  const nodes: Node[] = ports.slice(0, size).map((port, i) => {
    const name = `n${i + 1}`
    const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, name), '-n', name,
      '--cluster_name', 'spec', '--cluster', `nats://127.0.0.1:${ports[size + i]}`, '--routes', routes], { stdio: 'ignore' })
    return { name, url: `nats://127.0.0.1:${port}`, process: child, exited: new Promise((resolve) => child.on('exit', resolve)) }
  })
  const cluster: Cluster = {
    urls: nodes.map((n) => n.url),
    nodes,
    async kill(name) {
      const node = nodes.find((n) => n.name === name)!
      node.process.kill('SIGKILL')
      await node.exited
    },
    async stop() {
      for (const node of nodes) if (node.process.exitCode === null && node.process.signalCode === null) node.process.kill('SIGKILL')
      await Promise.all(nodes.map((n) => n.exited))
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
  // Ready once JetStream answers (a meta leader was elected), within 20 s.
  const until = Date.now() + 20_000
  for (;;) {
    try {
      const nc = await connect({ servers: cluster.urls, timeout: 1000 })
      try {
        await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo()
        return cluster
      } finally {
        await nc.close()
      }
    } catch (error) {
      if (Date.now() > until) {
        await cluster.stop()
        throw new Error(`the JetStream cluster did not start: ${(error as Error).message}`)
      }
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}
