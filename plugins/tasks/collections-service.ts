import type { ServiceSchema } from 'moleculer';
import { listCategories, createCategory, getCategory, updateCategory, deleteCategory } from './collections/categories.ts';
import { listSlaPolicies, createSlaPolicy, getSlaPolicy, updateSlaPolicy, deleteSlaPolicy } from './collections/sla-policies.ts';
import { listTemplates, createTemplate, getTemplate, updateTemplate, deleteTemplate } from './collections/templates.ts';
import { instantiateTemplate } from './collections/instantiate.ts';

/** Service `task-collections`: categories, templates and SLA policies, under /api/v1/tasks. */
export const taskCollectionsService: ServiceSchema = {
  name: 'task-collections',
  settings: { rest: '/tasks' },
  actions: {
    listCategories,
    createCategory,
    getCategory,
    updateCategory,
    deleteCategory,
    listSlaPolicies,
    createSlaPolicy,
    getSlaPolicy,
    updateSlaPolicy,
    deleteSlaPolicy,
    listTemplates,
    createTemplate,
    getTemplate,
    updateTemplate,
    deleteTemplate,
    instantiateTemplate,
  },
} as ServiceSchema;
