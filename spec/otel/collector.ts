// A small OTLP/HTTP collector on 127.0.0.1 for the export specs: it keeps every JSON body POSTed
// to it (the official exporter's requests), answering 200 or the status asked for.
import { createServer as createHttpServer, type Server } from 'node:http'

export interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; startTimeUnixNano: string | number; endTimeUnixNano: string | number; attributes: { key: string; value: Record<string, unknown> }[] }

/** A collector: OTLP/HTTP JSON on POST /v1/traces, answering 200 (or `status`). */
export const collector = async (status = 200) => {
  const received: { path: string; contentType: string; body: { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] } }[] = []
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: String(req.headers['content-type']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** An attribute's value in OTLP JSON ({ key, value: { stringValue | intValue | ... } }). */
export const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value ? Object.values(value)[0] : undefined
}
