/**
 * English and Chinese. Texts are written in English where they are used, `t('Sign in')`, and looked up in the
 * Chinese table below in Chinese mode (a test checks that every text passed to t() has its translation). `{name}`
 * in a text is replaced by vars.name. The choice is kept in localStorage (it is no secret).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { reasonInChinese } from './reasons.js';
import { ZH } from './zh.js';

export type Lang = 'en' | 'zh';

const STORE = 'gdflow.console.lang';
let lang: Lang = readLang();
const listeners = new Set<(l: Lang) => void>();

function readLang(): Lang {
  try {
    const stored = localStorage.getItem(STORE);
    if (stored === 'en' || stored === 'zh') return stored;
  } catch {
    // storage may be disabled
  }
  return typeof navigator !== 'undefined' && navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function currentLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  lang = next;
  try {
    localStorage.setItem(STORE, next);
  } catch {
    // storage may be disabled
  }
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  for (const listener of listeners) listener(next);
}

/** Re-render the calling component when the language changes; returns it. */
export function useLang(): Lang {
  const [value, set] = useState(lang);
  useEffect(() => {
    listeners.add(set);
    return () => void listeners.delete(set);
  }, []);
  return value;
}

export function t(text: string, vars?: Record<string, string | number>): string {
  let out = lang === 'zh' ? (ZH[text] ?? text) : text;
  if (vars) out = out.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
  return out;
}

/** An error for the user: the API's Chinese message in Chinese mode (error_message_chs), its English one otherwise. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const message = lang === 'zh' && error.messageChs ? error.messageChs : error.message;
    return error.status === 0 ? message : `${message} (${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A task's or a job's reason, which the engine writes in English: in Chinese in Chinese mode (reasons.ts). */
export function reasonText(reason: string): string {
  return lang === 'zh' ? reasonInChinese(reason) : reason;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * A local date as every page shows it, 2026-11-25, in both languages: the one date format of the console, which the
 * task list's date filters take too (a browser's own date field would show its locale's, 25/11/2026 or 11/25/2026).
 */
export function formatDay(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The local date that formatDay writes (`2026-11-25`), or undefined for anything else. */
export function parseDay(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const date = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return formatDay(date) === text.trim() ? date : undefined; // 2026-02-30 is no date
}

/** A date and time in the reader's zone (unix seconds in): 2026-11-25 14:03:09. */
export function formatTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const date = new Date(seconds * 1000);
  return `${formatDay(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
