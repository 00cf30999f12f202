/**
 * The SDK's DynamoDB commands and errors the data layer uses, imported in one place: each module of
 * a bundle that imports a CommonJS package carries its own reference to it, so the owners import
 * them from here.
 */
export { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
export { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** Whether a conditional write was made: false when its condition failed; any other failure is thrown. */
export async function conditionHeld(sending: Promise<unknown>): Promise<boolean> {
  try {
    await sending;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
