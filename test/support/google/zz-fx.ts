import { GoogleWorkspace, buildLargeDirectory } from '../google-workspace.js';
const g = await GoogleWorkspace.start();
const t = performance.now();
buildLargeDirectory(g);
console.log('fixture', (performance.now() - t).toFixed(0));
await g.close();
