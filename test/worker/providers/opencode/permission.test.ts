import { describe, expect, it } from 'vitest';
import { agentPermissionRules, isWithheld, opencodeToolName, permissionRules } from '../../../../src/worker/providers/opencode/permission.js';

/** The rules each level and tool option writes into OpenCode's `permission` config (order matters: the last match wins). */

describe("OpenCode's permission rules", () => {
  it('maps each level; never asks; only absolute extraDirs without wildcards open the outside', () => {
    const unattended = { doom_loop: 'allow', question: 'deny', plan_enter: 'deny', plan_exit: 'deny' };
    expect(permissionRules({ permissions: 'full', extraDirs: [] })).toEqual({ '*': 'allow', ...unattended, external_directory: 'allow' });
    const workspace = permissionRules({ permissions: 'workspace', extraDirs: ['/runs/r1/artifacts/', 'relative', '/runs/*', '/a?b'] });
    expect(Object.entries(workspace)).toEqual([
      ['*', 'allow'],
      ...Object.entries(unattended),
      ['external_directory', { '*': 'deny', '/runs/r1/artifacts': 'allow', '/runs/r1/artifacts/*': 'allow' }],
    ]);
    const readOnly = permissionRules({ permissions: 'read_only', extraDirs: [] });
    expect(Object.keys(readOnly)[0]).toBe('*');
    expect(JSON.stringify(readOnly)).not.toContain('"ask"');
    for (const t of ['read', 'grep', 'glob', 'task', 'webfetch']) expect(isWithheld(readOnly, t)).toBe(false);
    for (const t of ['write', 'edit', 'apply_patch', 'bash', 'echo_echo', 'question']) expect(isWithheld(readOnly, t)).toBe(true);
  });

  it('narrows to allowed_tools within the level, denied_tools last; Claude and mcp__ names map to OpenCode names', () => {
    const rules = permissionRules({ permissions: 'read_only', extraDirs: [], allowedTools: ['Read', 'Bash', 'mcp__docs__search'], deniedTools: ['grep'] });
    expect(isWithheld(rules, 'read')).toBe(false);
    // bash is not the level's to give.
    expect(isWithheld(rules, 'bash')).toBe(true);
    expect(isWithheld(rules, 'docs_search')).toBe(true);
    expect(isWithheld(rules, 'glob')).toBe(true);
    expect(Object.keys(rules).at(-1)).toBe('grep');
    const workspace = permissionRules({ permissions: 'workspace', extraDirs: [], allowedTools: ['mcp__docs', 'Write'], deniedTools: ['edit'] });
    expect(isWithheld(workspace, 'docs_search')).toBe(false);
    // write and edit are one permission in OpenCode.
    expect(isWithheld(workspace, 'write')).toBe(true);
    expect(permissionRules({ permissions: 'full', extraDirs: [], allowedTools: [] })).toEqual({
      '*': 'deny', doom_loop: 'allow', question: 'deny', plan_enter: 'deny', plan_exit: 'deny', external_directory: 'allow',
    });
    expect([opencodeToolName('MultiEdit'), opencodeToolName('mcp__a_b__c'), opencodeToolName('mcp__x__*'), opencodeToolName('custom')]).toEqual(['edit', 'a_b_c', 'x_*', 'custom']);
  });

  it("keeps a sub-agent's own rules within the node's", () => {
    const node = permissionRules({ permissions: 'workspace', extraDirs: ['/art'], deniedTools: ['bash'] });
    expect(agentPermissionRules(node, undefined, undefined)).toBeUndefined();
    const agent = agentPermissionRules(node, ['Bash', 'read'], undefined)!;
    expect(isWithheld(agent, 'read')).toBe(false);
    expect(isWithheld(agent, 'bash')).toBe(true);
    expect(isWithheld(agent, 'write')).toBe(true);
    expect(agent.external_directory).toEqual(node.external_directory);
    expect(isWithheld(agentPermissionRules(node, undefined, ['read'])!, 'read')).toBe(true);
  });
});
