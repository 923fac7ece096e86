import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The business row of a paid order, in the application's own table. The transactional
 * step writes it in the transaction that records the step, so it exists once or not at all.
 */
@Entity('orders')
export class Order {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  customerId!: string;

  /** In the currency's smallest unit (cents). */
  @Column({ type: 'integer' })
  amount!: number;

  @Column({ type: 'varchar', length: 3 })
  currency!: string;

  /** The gateway's charge id. */
  @Column({ type: 'varchar', length: 64 })
  chargeId!: string;
}
