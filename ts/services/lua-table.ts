// ntopng answers through a Lua JSON encoder (dkjson), which cannot tell an
// empty table from an empty list: an empty object goes out as []. Fields that
// are objects when filled keep that, so clients see the types ntopng sends.

/** An object, or [] when it has no keys (ntopng's empty Lua table). */
export const luaTable = <T>(o: Record<string, T>): Record<string, T> | [] => (Object.keys(o).length ? o : []);
