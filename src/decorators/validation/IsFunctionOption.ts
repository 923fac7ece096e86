import { ValidateBy, type ValidationOptions } from 'class-validator';

/** class-validator rule: the option is a function. */
export function IsFunctionOption(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isFunction',
      validator: {
        validate: (value: unknown) => typeof value === 'function',
        defaultMessage: () => '$property must be a function',
      },
    },
    options,
  );
}
