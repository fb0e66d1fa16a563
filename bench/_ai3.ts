import { aiNodes } from './ai-nodes.js';
const rows = [];
for (let i = 0; i < 3; i++) rows.push(...(await aiNodes()).slice(0, 1));
console.log(rows.map((r) => `${r.ms.toFixed(0)}ms cpu/node=${r.supervisorCpuMsPerNode.toFixed(2)}`).join(' | '));
