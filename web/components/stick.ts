// Keeps a scrolled panel at its end while new content arrives, unless the person scrolled up to
// read: checked before each redraw, applied after it.
import { useLayoutEffect, useRef } from 'preact/hooks'

const SLACK = 40

export const useStickToEnd = <T extends HTMLElement>(change: unknown) => {
  const ref = useRef<T>(null)
  const atEnd = useRef(true)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const onScroll = () => (atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= SLACK)
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => el.removeEventListener('scroll', onScroll)
  }, [])
  useLayoutEffect(() => {
    const el = ref.current
    if (el && atEnd.current) el.scrollTop = el.scrollHeight
  }, [change])
  return ref
}
