import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  migrate
} from "./chunk-LFLOYXGR.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import {
  openDatabase
} from "./chunk-BH4POYA2.js";
import "./chunk-3SYTADOT.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";

// dist/cli/migrate.js
async function migrateCommand(ctx) {
  const database = await openDatabase({
    url: ctx.config.database.url || process.env.DATABASE_URL,
    pgliteDir: ctx.config.database.pglite_dir
  });
  ctx.defer(() => database.close());
  const applied = await migrate(database.db);
  write(applied.length ? `applied ${applied.join(", ")} to ${database.location}
` : `${database.location} is up to date
`);
}
export {
  migrateCommand
};
