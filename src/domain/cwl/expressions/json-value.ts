/**
 * The values CWL expressions read and return: plain JSON. Inputs, `self` and `runtime` are JSON, and an
 * expression's result crosses back from the JavaScript sandbox as JSON text. An integer a double cannot hold
 * exactly (beyond 2^53) is a bigint, as everywhere CWL values go (contract/exact-json.ts).
 */

export type Json = null | boolean | number | bigint | string | Json[] | JsonMap;

export interface JsonMap {
  [key: string]: Json;
}

export const isJsonMap = (value: Json | undefined): value is JsonMap => typeof value === 'object' && value !== null && !Array.isArray(value);
