// deltacheck driver for ai 7 with @ai-sdk/* 4 (the Vercel AI SDK); its code is ../common/ai-sdk-driver.mjs.
// The loader is written here, so that its import() resolves from this folder's node_modules.
import { main } from '../common/ai-sdk-driver.mjs';

await main({ load: (name) => import(name), base: import.meta.url });
