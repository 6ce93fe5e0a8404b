# syntax=docker/dockerfile:1
# Build stage: install everything, compile TypeScript to dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

# Production dependencies only (the `node` devDependency and test tools stay behind).
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts

FROM node:24-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates bubblewrap \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --create-home --uid 10001 autogen
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 AUTOGEN_DB_PATH=/data/autogen.db
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
COPY bin ./bin
COPY prompts ./prompts
COPY resources ./resources
COPY templates ./templates
RUN mkdir -p /data && chown autogen:autogen /data
USER autogen
VOLUME ["/data"]
EXPOSE 3000
CMD ["node", "dist/cli.js", "serve"]
