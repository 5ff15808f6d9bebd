import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { SandboxLimits } from './limits.js';

/**
 * QuickJS's WebAssembly module for one worker, in a WebAssembly memory of fixed maximum size. QuickJS's own
 * memory limit cannot be trusted in this build: under Emscripten it cannot learn the size of what it allocated,
 * so it only refuses single allocations larger than the limit, and many small ones grow the memory to 2 GiB
 * (quickjs-emscripten issues 255 and 271). The memory's maximum is the real limit: past it malloc fails and
 * QuickJS throws "out of memory". Watching `grow` tells a refused growth from other errors.
 */

/** Node has WebAssembly; the project's libraries (ES2023, no DOM) do not declare it. What is used of it: */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}
type MemoryConstructor = new (descriptor: { initial: number; maximum: number }) => WasmMemory;
const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: MemoryConstructor } }).WebAssembly;

const PAGE = 64 * 1024;
/** What the module starts with (Emscripten's default INITIAL_MEMORY): its stack, data and first heap. */
const INITIAL_PAGES = 256;

export interface LoadedQuickJs {
  module: QuickJSWASMModule;
  /** Whether the memory refused to grow since the last `watchMemory()`. */
  // Plain functions (closures over the module's memory), not methods: callers may pass them on unbound.
  memoryRefused: () => boolean;
  watchMemory: () => void;
  /** How much the memory grew past its initial size: it never shrinks, so a worker that grew much is replaced. */
  grownBytes: () => number;
}

export async function loadQuickJs(limits: SandboxLimits): Promise<LoadedQuickJs> {
  const memory = new Memory({ initial: INITIAL_PAGES, maximum: INITIAL_PAGES + Math.ceil(limits.memoryLimitBytes / PAGE) });
  let refused = false;
  const grow = memory.grow.bind(memory);
  memory.grow = (delta: number): number => {
    try {
      return grow(delta);
    } catch (error) {
      refused = true;
      throw error;
    }
  };
  const variant = defaultExport(await import('@jitl/quickjs-wasmfile-release-sync'));
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory }));
  return {
    module,
    memoryRefused: () => refused,
    watchMemory: () => void (refused = false),
    grownBytes: () => memory.buffer.byteLength - INITIAL_PAGES * PAGE,
  };
}

/** The package's types describe its CommonJS build; its ESM build exports the variant as `default`. Either way: */
function defaultExport(imported: unknown): QuickJSSyncVariant {
  let value = imported;
  while (typeof value === 'object' && value !== null && 'default' in value) value = value.default;
  return value as QuickJSSyncVariant;
}
