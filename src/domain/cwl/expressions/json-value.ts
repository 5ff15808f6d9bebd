/**
 * The values CWL expressions read and return: plain JSON. Inputs, `self` and `runtime` are JSON, and an
 * expression's result crosses back from the JavaScript sandbox as JSON text.
 */

export type Json = null | boolean | number | string | Json[] | JsonMap;

export interface JsonMap {
  [key: string]: Json;
}

export const isJsonMap = (value: Json | undefined): value is JsonMap => typeof value === 'object' && value !== null && !Array.isArray(value);
