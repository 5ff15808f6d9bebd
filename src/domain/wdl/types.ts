/** WDL's types (spec "Types"), optional (`?`) and, for arrays, non-empty (`+`). */
export type WdlType =
  | { readonly kind: 'Int' | 'Float' | 'Boolean' | 'String' | 'File' | 'Directory' | 'Object' | 'Any' | 'None'; readonly optional: boolean }
  | { readonly kind: 'Array'; readonly item: WdlType; readonly nonEmpty: boolean; readonly optional: boolean }
  | { readonly kind: 'Map'; readonly key: WdlType; readonly value: WdlType; readonly optional: boolean }
  | { readonly kind: 'Pair'; readonly left: WdlType; readonly right: WdlType; readonly optional: boolean }
  | { readonly kind: 'Struct'; readonly name: string; readonly optional: boolean };

export type PrimitiveKind = 'Int' | 'Float' | 'Boolean' | 'String' | 'File' | 'Directory';

export const prim = (kind: PrimitiveKind | 'Object' | 'Any' | 'None', optional = false): WdlType => ({ kind, optional });
export const arrayOf = (item: WdlType, nonEmpty = false, optional = false): WdlType => ({ kind: 'Array', item, nonEmpty, optional });
export const ANY: WdlType = prim('Any');

export const withOptional = (type: WdlType, optional: boolean): WdlType => (type.optional === optional ? type : { ...type, optional });

export const isPrimitive = (type: WdlType): boolean => ['Int', 'Float', 'Boolean', 'String', 'File', 'Directory'].includes(type.kind);

/** The type as WDL writes it: `Array[Int]+?`, `Map[String,File]`. */
export function typeText(type: WdlType): string {
  const q = type.optional ? '?' : '';
  switch (type.kind) {
    case 'Array':
      return `Array[${typeText(type.item)}]${type.nonEmpty ? '+' : ''}${q}`;
    case 'Map':
      return `Map[${typeText(type.key)},${typeText(type.value)}]${q}`;
    case 'Pair':
      return `Pair[${typeText(type.left)},${typeText(type.right)}]${q}`;
    case 'Struct':
      return `${type.name}${q}`;
    default:
      return `${type.kind}${q}`;
  }
}

/** The struct definitions a coercion may need, by name: member name -> type. */
export type StructTable = ReadonlyMap<string, ReadonlyMap<string, WdlType>>;

/**
 * Whether a value of type `from` may be given where `to` is expected (spec "Type Coercion"): the same type; Int to
 * Float; String to File/Directory and File to String; any primitive to String (spec "Primitive Conversion to String"); T to T?; None to any optional; T? to T (checked at run time, as
 * the spec's 1.x engines do: an undefined value there is an error); Array[T] to Array[T]+ (checked at run time);
 * Map[String,X] and Object to a struct and to Object; Map to Object; arrays, maps and pairs member by member.
 */
export function coercible(from: WdlType, to: WdlType, structs: StructTable): boolean {
  if (from.kind === 'Any' || to.kind === 'Any') return true;
  if (from.kind === 'None') return to.optional || to.kind === 'None';
  switch (to.kind) {
    // A String is no number nor Boolean (`Int x = "a"` is a type error); the one exception, read_lines() given where
    // an Array of them is declared, is allowed by the checker where the call is written (check/document.ts).
    case 'Int':
    case 'Boolean':
      return from.kind === to.kind;
    case 'Float':
      return from.kind === 'Float' || from.kind === 'Int';
    case 'String':
      return isPrimitive(from);
    case 'File':
    case 'Directory':
      return from.kind === to.kind || from.kind === 'String';
    case 'Array':
      return from.kind === 'Array' && coercible(from.item, to.item, structs);
    case 'Map':
      if (from.kind === 'Object') return true;
      return from.kind === 'Map' && coercible(from.key, to.key, structs) && coercible(from.value, to.value, structs);
    case 'Pair':
      return from.kind === 'Pair' && coercible(from.left, to.left, structs) && coercible(from.right, to.right, structs);
    case 'Object':
      return from.kind === 'Object' || from.kind === 'Map' || from.kind === 'Struct';
    case 'Struct':
      if (from.kind === 'Struct') return from.name === to.name || structsAlike(from.name, to.name, structs);
      return from.kind === 'Object' || (from.kind === 'Map' && coercible(from.key, prim('String'), structs));
    default:
      return false;
  }
}

/** Two structs of the same members (an imported struct under an alias is the same struct). */
function structsAlike(a: string, b: string, structs: StructTable): boolean {
  const x = structs.get(a);
  const y = structs.get(b);
  if (!x || !y || x.size !== y.size) return false;
  return [...x].every(([name, type]) => {
    const other = y.get(name);
    return other !== undefined && typeText(other) === typeText(type);
  });
}

/** The common type of array or map literal items: Int and Float give Float, T and None give T?. */
export function unify(types: readonly WdlType[], structs: StructTable): WdlType {
  let result: WdlType | undefined;
  let optional = false;
  for (const type of types) {
    if (type.kind === 'None') {
      optional = true;
      continue;
    }
    if (type.optional) optional = true;
    if (result === undefined || result.kind === 'Any') result = type;
    else if (result.kind === 'Int' && type.kind === 'Float') result = type;
    else if (result.kind === 'File' && type.kind === 'String') result = type;
    else if (!coercible(type, withOptional(result, true), structs) && coercible(result, type, structs)) result = type;
  }
  if (result === undefined) return optional ? prim('None') : ANY;
  return withOptional(result, optional || result.optional);
}
