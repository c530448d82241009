import { Card, Flex, Input, Typography } from 'antd';
import { useState } from 'react';

/** A greeting built from typed parts: the TypeScript demo's model. */
export interface Greeting {
  salutation: 'Hello' | 'Welcome';
  name: string;
}

export function greetingText(greeting: Greeting): string {
  const name = greeting.name.trim() || 'world';
  return `${greeting.salutation}, ${name}!`;
}

/** spec 000 §2 /demo/typescript/greeting: the typescript demo's child screen. */
export function GreetingPage() {
  const [name, setName] = useState('');
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>TypeScript demo</Typography.Title>
      <Card title={<h2 className="card-heading">Greeting</h2>}>
        <label htmlFor="greeting-name">Your name</label>
        <Input
          id="greeting-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          style={{ maxWidth: 320, display: 'block', marginBottom: 16 }}
        />
        <p aria-live="polite" style={{ fontSize: 24, margin: 0 }}>
          {greetingText({ salutation: 'Hello', name })}
        </p>
      </Card>
    </Flex>
  );
}
