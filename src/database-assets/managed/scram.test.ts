import { describe, expect, it } from 'vitest'
import { scramVerifier } from './scram.js'

describe('scramVerifier', () => {
  it('computes the verifier PostgreSQL 15 stores for the same password and salt', () => {
    // From a real server: SET password_encryption = 'scram-sha-256'; CREATE ROLE probe PASSWORD '...';
    // SELECT rolpassword FROM pg_authid WHERE rolname = 'probe'
    const fromPostgres =
      'SCRAM-SHA-256$4096:AEHr9q4tS3W0iKQEhOLQ6Q==$K8ODw5v4JPLt6aPDOAnO2e3qJBxX+wnPQarZGeMjKso=:s0CIOyA1Afm6BD5z/eKM2cGxKuwk2UNPyyTXVpOu+po='
    expect(scramVerifier('correct horse battery staple', Buffer.from('AEHr9q4tS3W0iKQEhOLQ6Q==', 'base64'))).toBe(
      fromPostgres,
    )
  })

  it('salts every verifier afresh', () => {
    expect(scramVerifier('same')).not.toBe(scramVerifier('same'))
  })
})
