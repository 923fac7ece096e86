import { printOutcome, runWithoutPackages } from '../support/withoutPackages';

const NEST = ['@nestjs/common', '@nestjs/core'];

describe('@nestjs/* are optional peer dependencies', () => {
  it('importing waymark does not load them', async () => {
    await expect(
      runWithoutPackages(NEST, printOutcome("require('./src/index.ts');")),
    ).resolves.toBe('ok');
  });

  it('importing waymark/nest does, and names the package to install', async () => {
    await expect(
      runWithoutPackages(NEST, printOutcome("require('./src/nest/index.ts');")),
    ).resolves.toBe(
      'ConfigurationError: waymark/nest needs the package "@nestjs/common" (an optional peer ' +
        'dependency of waymark), which is not installed: npm install @nestjs/common',
    );
    await expect(
      runWithoutPackages(['@nestjs/core'], printOutcome("require('./src/nest/index.ts');")),
    ).resolves.toMatch(/^ConfigurationError: waymark\/nest needs the package "@nestjs\/core" /);
  });
});
