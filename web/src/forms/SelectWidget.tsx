import type { ReactNode } from 'react';
import type { WidgetProps } from '@rjsf/utils';
// the widget file alone, as ConfigForm imports Form: the package index would bring ajv along
import RjsfSelectWidget from '@rjsf/core/lib/components/widgets/SelectWidget.js';

const CHOOSER = /__(one|any)of_select$/;

/**
 * rjsf's select, named when rjsf gives it no label: the select that picks which alternative of a
 * `oneOf`/`anyOf` a value is (e.g. a condition's `branches.true`, one step id or a list) has only
 * the field's name, so it is wrapped in a label saying what it chooses. Every other select keeps
 * the field's own `<label for>`.
 */
export function SelectWidget(props: WidgetProps): ReactNode {
  if (!CHOOSER.test(props.id)) return <RjsfSelectWidget {...props} />;
  return (
    <label className="oneof-chooser">
      <span className="sr-only">Form of {props.label || props.name}</span>
      <RjsfSelectWidget {...props} />
    </label>
  );
}
