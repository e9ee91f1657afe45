import type { Experimental_DefaultFormStateBehavior } from '@rjsf/utils';

/**
 * How a config form fills in defaults: an array's `minItems` entries only when the array is
 * required. rjsf's own default fills them always, so a new condition step came with one empty
 * item-mode condition (`conditions: [{…}]`, its `field` required) although the step tests an
 * `expression` and needs no condition at all: it could not be saved until that item was
 * filled in. `web/scripts/editor-fixtures.ts` computes the form's defaults the same way.
 */
export const DEFAULT_FORM_STATE_BEHAVIOR: Experimental_DefaultFormStateBehavior = { arrayMinItems: { populate: 'requiredOnly' } };
