import { type Project, projectSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../api/index.ts';

/** spec 000 §7 `GET /projects`: the projects the signed-in user sees (admins all, others their own). */
export const projectsQueryOptions = () =>
  queryOptions({
    queryKey: ['access', 'projects', 'mine'] as const,
    queryFn: ({ signal }): Promise<Project[]> => api.get('projects', z.array(projectSchema), { signal }),
    staleTime: 60_000,
  });

/** The project chosen in the top bar's selector, kept across reloads in this browser. */
export const SELECTED_PROJECT_KEY = 'granary.selectedProject';

export function readSelectedProject(): string | null {
  try {
    return localStorage.getItem(SELECTED_PROJECT_KEY);
  } catch {
    return null;
  }
}

export function storeSelectedProject(key: string | null): void {
  try {
    if (key === null) localStorage.removeItem(SELECTED_PROJECT_KEY);
    else localStorage.setItem(SELECTED_PROJECT_KEY, key);
  } catch {
    // storage disabled: the choice lasts until the page is reloaded
  }
}
