import type { Directory } from './entra-directory.js';
import { newGuid } from './entra-ids.js';
import type { DirectoryObject } from './entra-objects.js';
import { OrderedIds } from './ordered-ids.js';

/**
 * Users, groups and service principals assigned to an enterprise application (its service
 * principal's `appRoleAssignedTo`, resources/approleassignment.md). The default access role is
 * the all-zero appRoleId. Entra's own provisioning reads only the assigned groups' direct members.
 */
export interface AppRoleAssignment {
  id: string;
  appRoleId: string;
  createdDateTime: string;
  principalId: string;
  resourceId: string;
}

export const DEFAULT_ACCESS_ROLE = '00000000-0000-0000-0000-000000000000';

const PRINCIPAL_TYPES: Partial<Record<DirectoryObject['kind'], string>> = {
  user: 'User',
  group: 'Group',
  servicePrincipal: 'ServicePrincipal',
};

export class Assignments {
  private readonly byResource = new Map<string, OrderedIds>();
  private readonly byId = new Map<string, AppRoleAssignment>();

  constructor(private readonly directory: Directory) {}

  assign(resourceId: string, principalId: string, appRoleId = DEFAULT_ACCESS_ROLE): AppRoleAssignment {
    this.directory.live(resourceId, 'servicePrincipal');
    const principal = this.directory.live(principalId);
    if (!PRINCIPAL_TYPES[principal.kind]) throw new Error(`a ${principal.kind} cannot be assigned to an app`);
    const assigned = this.of(resourceId);
    for (const id of assigned.ids()) {
      const other = this.byId.get(id) as AppRoleAssignment;
      if (other.principalId === principalId && other.appRoleId === appRoleId) {
        throw new Error(`${principalId} already holds app role ${appRoleId} of ${resourceId}`);
      }
    }
    const assignment = {
      id: newGuid(),
      appRoleId,
      createdDateTime: new Date(this.directory.clock.now()).toISOString(),
      principalId,
      resourceId,
    };
    this.byId.set(assignment.id, assignment);
    assigned.add(assignment.id, this.directory.nextSeq());
    return assignment;
  }

  unassign(assignmentId: string): void {
    const assignment = this.byId.get(assignmentId);
    if (!assignment) throw new Error(`no app role assignment ${assignmentId}`);
    this.byId.delete(assignmentId);
    this.byResource.get(assignment.resourceId)?.delete(assignmentId);
  }

  /** The resource's assignments, in order; those of a principal gone for good are dropped. */
  of(resourceId: string): OrderedIds {
    const found = this.byResource.get(resourceId) ?? new OrderedIds();
    this.byResource.set(resourceId, found);
    return found;
  }

  get(assignmentId: string): AppRoleAssignment | undefined {
    const assignment = this.byId.get(assignmentId);
    if (assignment && !this.directory.objects.has(assignment.principalId)) {
      this.unassign(assignmentId);
      return undefined;
    }
    return assignment;
  }

  /** An assignment as Graph lists it: the principal's and resource's names read now. */
  json(assignment: AppRoleAssignment): Record<string, unknown> {
    const principal = this.directory.held(assignment.principalId);
    const resource = this.directory.held(assignment.resourceId);
    return {
      id: assignment.id,
      deletedDateTime: null,
      appRoleId: assignment.appRoleId,
      createdDateTime: assignment.createdDateTime,
      principalDisplayName: principal.props.displayName ?? null,
      principalId: principal.id,
      principalType: PRINCIPAL_TYPES[principal.kind],
      resourceDisplayName: resource.props.displayName ?? null,
      resourceId: resource.id,
    };
  }
}
