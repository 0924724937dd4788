// deltacheck driver for ai 6 with @ai-sdk/* 3 (the adapters named `…@6`); its code is ../common/ai-sdk-driver.mjs.
// The loader is written here, so that its import() resolves from this folder's node_modules.
import { main } from '../common/ai-sdk-driver.mjs';

await main({ load: (name) => import(name), base: import.meta.url });
