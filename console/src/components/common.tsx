/** Small pieces every page uses: loading and error states, a confirmation dialog, state badges, progress. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorText, t } from '../i18n.js';

/** The result of an async load: re-run when `deps` change; `reload` runs it again. */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  // Started as soon as the component is in the page, not after the browser's next paint (as useEffect would).
  useLayoutEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error: unknown) => !controller.signal.aborted && setState({ data: undefined, error, loading: false }),
    );
    return () => controller.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export function ErrorBox({ error, id }: { error: unknown; id?: string }) {
  if (error === undefined || error === null) return null;
  return (
    <div class="error" role="alert" id={id}>
      {errorText(error)}
    </div>
  );
}

export function Loading() {
  return (
    <p class="muted" role="status">
      {t('Loading…')}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** A modal confirmation (the native dialog element: focus stays inside, Escape cancels). */
export function Confirm({
  open,
  title,
  message,
  confirmLabel,
  danger,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), onCancel())}>
      <h2 id={titleId}>{title}</h2>
      <div class="confirm-message">{message}</div>
      <div class="buttons">
        <button type="button" onClick={onCancel} autoFocus>
          {t('Cancel')}
        </button>
        <button type="button" class={danger ? 'danger' : 'primary'} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge st-${state}`}>{t(state)}</span>;
}

export function Progress({ percent, label }: { percent: number; label: string }) {
  const value = Math.max(0, Math.min(100, percent));
  return (
    <span class="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(value)} aria-label={label}>
      <span class="progress-bar" style={{ width: `${value}%` }} />
    </span>
  );
}

/** Run `tick` every `ms` while `active` (and the page is visible); stops on unmount. */
export function usePolling(tick: () => void, ms: number, active: boolean): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (document.visibilityState !== 'hidden') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, active]);
}
