import { ValidateBy, type ValidationOptions } from 'class-validator';
import { isDuration } from '../../ground/Duration';

/** class-validator rule: a {@link Duration} such as `250`, `'30s'` or `'7d'`. */
export function IsDurationOption(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDuration',
      validator: {
        validate: (value: unknown) => isDuration(value),
        defaultMessage: () =>
          '$property must be a duration: milliseconds or a string like "500ms", "30s", "5m", "2h", "7d"',
      },
    },
    options,
  );
}
