// deltacheck driver for openai 7 (openai-node); its code is ../common/openai-driver.mjs.
// The loader is written here, so that its import() resolves from this folder's node_modules.
import { main } from '../common/openai-driver.mjs';

await main({ load: (name) => import(name), base: import.meta.url });
