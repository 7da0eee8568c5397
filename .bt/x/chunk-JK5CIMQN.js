import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  migrate
} from "./chunk-LFLOYXGR.js";
import {
  openDatabase
} from "./chunk-BH4POYA2.js";

// dist/cli/database.js
async function openLedger(ctx) {
  const database = await openDatabase({
    url: ctx.config.database.url || process.env.DATABASE_URL,
    pgliteDir: ctx.config.database.pglite_dir
  });
  try {
    await migrate(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  ctx.defer(() => database.close());
  return database;
}

export {
  openLedger
};
